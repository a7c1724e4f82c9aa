info cells
run
info cells
stepi
info queues
print $pc
