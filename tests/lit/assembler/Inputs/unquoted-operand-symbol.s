        .data
        .word   r5
