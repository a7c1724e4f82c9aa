finish
break twice cell 0
run
bt
finish
print total
finish
finish
info cells
