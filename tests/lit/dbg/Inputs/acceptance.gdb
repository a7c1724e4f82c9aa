break polynomial.w2:33 cell 3
run
cell 3
print xin
print coeff
print data[0]
print coeffs[3]
step
info queues
