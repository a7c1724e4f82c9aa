; The W2 statements sendmsg and receivemsg (docs/w2.md, section 8.4) call these.
; W2 functions take no arguments, so the compiled program passes them in its
; own global w2_msg_args (which the frontend defines in every program that uses
; messages): [0] destination or buffer, [1] address or words, [2] words, or the
; source received, [3] the words received, [4] torus width, [5] height, [6] the
; first cell's cid. The first call sets the runtime up. warp-cc links this and
; msg.o into such programs.
        .model  iwarp
        .data
__msg_w2_ready: .word 0
        .text
        .globl  w2_msg_send
        .globl  w2_msg_recv
        .globl  w2_msg_flush

__msg_w2_init:
        ld r4, [r0, __msg_w2_ready]
        mv r5, 1
        bnz r4, .Linit_done
        ld r1, [r0, w2_msg_args+16] | ld r2, [r0, w2_msg_args+20]
        ld r3, [r0, w2_msg_args+24] | st [r0, __msg_w2_ready], r5
        nop
        call msg_init
.Linit_done:
        ret

w2_msg_send:
        call __msg_w2_init
        ld r1, [r0, w2_msg_args] | ld r2, [r0, w2_msg_args+4]
        ld r3, [r0, w2_msg_args+8]
        nop
        jmp msg_send

w2_msg_recv:
        call __msg_w2_init
        ld r1, [r0, w2_msg_args] | ld r2, [r0, w2_msg_args+4]
        nop
        call msg_recv
        st [r0, w2_msg_args+8], r1 | st [r0, w2_msg_args+12], r2
        ret

w2_msg_flush:
        ld r4, [r0, __msg_w2_ready]
        nop
        bz r4, .Lflush_none
        jmp msg_flush
.Lflush_none:
        ret
