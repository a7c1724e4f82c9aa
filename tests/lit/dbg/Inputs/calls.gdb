break calls.w2:21 if v = 3
break twice cell 1
info breakpoints
run
print total
print v
step
bt
next
print total
continue 2
info breakpoints
delete 2
continue
print v
print i
delete
continue
print ys
print ys[1] + ys[2] * 2
break *80
break *81
break nosuch
break calls.w2:99
break other.w2:3
