; The cells' start-up code: every cell starts here (the image's entry point), runs
; the cellprogram body and stops. warp-cc links it before the user's objects.
        .text
        .globl  _start
        .type   _start, @function
_start:
        call    main
        halt
