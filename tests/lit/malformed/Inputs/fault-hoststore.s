; A word sent to the host with an address outside host memory.
        .file   "host.w2"
        .host   r, out, int, 0
        .text
        .globl  main
main:
        .loc    9 2
        mv @axr, 4096
        mv @xr, 5
        halt
