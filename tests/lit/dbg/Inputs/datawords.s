; Initialised data and a zeroed word after it: the image has .data and .bss.
        .data
        .globl  seven
        .type   seven, @object
        .size   seven, 4
seven:  .word   7
        .bss
        .globl  copy
        .type   copy, @object
        .size   copy, 4
copy:   .zero   4
        .text
        .globl  main
        .type   main, @function
main:
        ret
