# Comments and empty lines do nothing in a script.

print xin
list poly
list
list 30
break 33 cell 3
r
p xin * 2 + 1
print/x 255
print/f $r5
print -7 / 2
print -7 mod 2
print 7 % -2
print 1 / 0
print 2.5 * 4
print int(2.9) + float(1) / 2
print not (xin < 0) or 1 = 1
print 3 < 4 and 4 <> 4
print coeffs
print coeffs[10]
print coeffs[1][2]
print $8 + $9
print $
print $99
print @xq
print &xin
x/3f &coeff
x/2d &i
x/4xw coeffs
info registers r5 r6 pc cid
info locals
info line
info functions
info stats
info channels
disassemble
info
info frobnicate
help step
help info
echo done\n
cell 42
cell
frob
