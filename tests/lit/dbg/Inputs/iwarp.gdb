break 33 cell 3
run
info channels
info queues 2
print @yl
cell 2
print @yl
info channels all
