break 30 cell 2
run
delete
watch xin
continue
continue
delete
watch @xl cell 5
continue
continue
info watchpoints
print @xl
print/x @xl
cell 5
print @xl
