break 33 cell 3
run
cell 9
print @xl
print @xl[0] * 2
print @xl[0] + 1
print $r0 + 2
cell 7
print @xl[0]
x/2x 0x3ffc
x/2x 3
print 2147483647 + 1
print 2147483648
print -2147483649
info line 20
info locals cell 1
info stats 3
info functions ^po
disassemble 0x50
