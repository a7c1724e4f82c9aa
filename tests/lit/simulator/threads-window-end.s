; iWarp on threads runs a window of two clocks between barriers. Twelve cells each
; send ten words right and halt; nobody reads them, so every bus ends blocked for
; want of credit and the run ends with words still in the agents. It ends at clock
; 22, the first of a window, after which the threads have stepped the buses once
; more (one more blocked step each): the run is made again alone. With one
; instruction more it ends at clock 23, the second of a window, and stands. Output
; and statistics are one thread's either way.
; RUN: warp-as -o %t.o %s && warp-ld -e main -o %t.img %t.o
; RUN: warp-sim %t.img --stats > %t.1 2>&1
; RUN: warp-sim %t.img --stats --threads 2 > %t.2 2>&1
; RUN: warp-sim %t.img --stats -j 4 > %t.4 2>&1
; RUN: diff %t.1 %t.2 && diff %t.1 %t.4
; RUN: FileCheck %s --check-prefix=EVEN < %t.2
; RUN: sed 's/^main:/main:\n        mv r2, 0/' %s > %t.odd.s
; RUN: warp-as -o %t.odd.o %t.odd.s && warp-ld -e main -o %t.odd.img %t.odd.o
; RUN: warp-sim %t.odd.img --stats > %t.odd.1 2>&1
; RUN: warp-sim %t.odd.img --stats --threads 2 > %t.odd.2 2>&1
; RUN: diff %t.odd.1 %t.odd.2
; RUN: FileCheck %s --check-prefix=ODD < %t.odd.2
; EVEN: cycles: 22
; EVEN: bus cell 0 XRight: words 8, busy 16 (72.7%), blocked 5
; ODD: cycles: 23
        .model  iwarp
        .cells  0, 11
        .text
        .globl  main
main:
        mv r1, 10
loop:
        mv @xr, r1
        dbnz r1, loop
        halt
