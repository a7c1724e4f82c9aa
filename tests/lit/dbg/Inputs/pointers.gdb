break twice
run
print &total
whatis &total
ptype &total
info symbol &total
print &xs
print &xs[2]
whatis &xs
info symbol &xs[2]
print/x &total
x/dw &total
