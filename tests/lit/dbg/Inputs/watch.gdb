break 30 cell 2
run
delete
watch xin
watch @xl cell 5
continue
continue
continue
info watchpoints
delete 2
continue
print xin
print @xl
print/x @xl
cell 5
print @xl
print $cycle
