run
print v
print q
print i
bt
continue
run
info cells
