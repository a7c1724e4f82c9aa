break 30 cell 3
run
info breakpoints
continue
print $cycle
step
print $cycle
step
print $cycle
step
print $cycle
print xin
print coeff
info locals
info cells
