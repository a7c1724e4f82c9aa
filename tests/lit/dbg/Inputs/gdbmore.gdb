break twice
run
disassemble 0xa0,0xf0
disassemble twice,+40
disassemble 0xa4,+1
disassemble 0xa0,nosuch
output total
output/x 255
echo \n
output
bt
up 9
up
down 9
down
frame 1
up 1
down 5
