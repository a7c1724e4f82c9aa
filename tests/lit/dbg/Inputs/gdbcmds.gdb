start
info args
tbreak 12 cell 1
info breakpoints
continue
info breakpoints
bt
bt 1
bt full
bt -1
up
info frame
print i
print v
down
down
f 1
info locals
frame 0
info locals cell 0
info line 20
info line
print total = 50
print total
set var total = 7
print total
print $$
print $$2
print total == 7
print 1 = 1
print/c 65
print/t 10
print/o 8
print/x -1
print 2147483648
print -2147483648
print 0xffffffff
whatis total
ptype xs
whatis xs[1]
info symbol $pc
info symbol twice
info source
info functions ^tw
info stats 1
display total
display/x total
info display
next
undisplay 1
next
undisplay
break 22
condition 3 i = 2
info breakpoints
condition 3
ignore 3 1
commands 3
print i
end
continue
condition 3 nosuch > 1
watch nosuch
break 22 if (i
set print elements 2
show print elements
print xs
set print elements unlimited
x/2d &i
x
x/s &i
x/2i twice
x
disassemble 0x50
until
advance 22
cell apply all print $cid
cell apply 0-1 info line
cell apply 1 p total
define twicep
print $arg0 * 2
print $argc
end
twicep 21
kill
info locals
set listsize 3
show listsize
list 20
list
echo done\n
