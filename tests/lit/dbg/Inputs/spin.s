; One cell that never stops: for interrupting a run.
        .text
        .globl  main
        .type   main, @function
main:
        jmp     main
