; Message passing on the iWarp torus (seed 003, section 4.3), run by the cells
; themselves: every clock of overhead is an instruction below, none a constant.
; docs/design.md, section 11, gives the protocol; in short:
;
; - A message is a pathway: its begin marker names the sender itself with a turn
;   toward the first bus, so the sender's agent, not a blocking creq, waits for the
;   first channel (the computation agent never stops in a channel request and keeps
;   posting receives). Routing words follow for the X dateline, the X-to-Y corner,
;   the Y dateline and the destination (bits 16..31: the source). Dimension order
;   with a dateline between two pools: hops start in the reservation pool (0) and
;   move to the open pool (1) from the link that wraps around the torus on, in each
;   dimension; the channel dependency graph is then acyclic (Dally and Seitz).
; - The words go out by an out spool (gate 7) from the sender's own memory: sends
;   are buffered at the sender and run in the background, one at a time, from a
;   queue; a message end and a pathway end marker close it when the spool stops.
; - The receiver spools the message into the buffer of the receive it posted (gate
;   0, stopping at the message end marker); pathways that arrive meanwhile wait at
;   their last channel, listed in arrival order.
;
; Calls: arguments in r1, r2, r3; results in r1, r2; r1..r31 are clobbered, r32..r63
; kept. The send channel is local channel 19 (the last), spool gates 0 and 7.
;   msg_init   r1 = torus width, r2 = height, r3 = the first cell's cid (cell
;              (x, y) is cid first + y*W + x)
;   msg_send   r1 = destination cid, r2 = byte address, r3 = words (queued; the
;              words must stay as they are until msg_flush returns)
;   msg_recv   r1 = byte address, r2 = words it holds at most -> r1 source, r2 words
;   msg_flush  returns when every queued send has left the cell
        .model  iwarp
        .file   "msg.s"
        .data
__msg_w:        .word 0
__msg_first:    .word 0
__msg_h:        .word 0
__msg_x:        .word 0
__msg_y:        .word 0
__msg_sending:  .word 0
__msg_sqhead:   .word 0
__msg_sqtail:   .word 0
__msg_pahead:   .word 0
__msg_patail:   .word 0
__msg_rbusy:    .word 0
__msg_rdone:    .word 0
__msg_rsrc:     .word 0
__msg_rbuf:     .word 0
__msg_rmax:     .word 0
__msg_rlen:     .word 0
; The send queue: 64 entries of (destination, address, words, 0).
__msg_sq:       .zero 1024
; Pathways arrived and not yet received: 32 entries of (channel, source).
__msg_pa:       .zero 256
        .text
        .globl  msg_init
        .globl  msg_send
        .globl  msg_recv
        .globl  msg_flush

msg_init:
        .loc    59
        st [r0, __msg_w], r1 | st [r0, __msg_h], r2
        st [r0, __msg_first], r3 | isub r5, cid, r3
        imodu r3, r5, r1
        idivu r4, r5, r1
        st [r0, __msg_sending], r0 | st [r0, __msg_sqhead], r0
        st [r0, __msg_sqtail], r0 | st [r0, __msg_pahead], r0
        st [r0, __msg_patail], r0 | st [r0, __msg_rbusy], r0
        ; pathway begins (8), unroutable pathways (7) and spool ends (6) only
        mv %evmask, 0x1c0
        nop
        nop
        nop
        nop
        nop
        st [r0, __msg_x], r3 | st [r0, __msg_y], r4
        ret

; Queues a send and starts it if the cell sends nothing now.
msg_send:
        .loc    79
        mv r29, r1 | mv r30, r2
        mv r31, r3
.Lsend_again:
        ld r4, [r0, __msg_sqtail] | ld r5, [r0, __msg_sqhead]
        nop
        isub r6, r4, r5
        ieq r6, r6, 64
        bz r6, .Lsq_room
        .loc    88
        call __msg_poll
        jmp .Lsend_again
.Lsq_room:
        and r7, r4, 63
        shl r7, r7, 4
        iadd r4, r4, 1
        st [r7, __msg_sq], r29 | st [r7, __msg_sq+4], r30
        st [r7, __msg_sq+8], r31 | st [r0, __msg_sqtail], r4
        ld r8, [r0, __msg_sending]
        nop
        bnz r8, .Lsend_ret
        call __msg_start
.Lsend_ret:
        ret

; Starts the send at the head of the queue (the caller knows it is not empty and
; nothing is sending).
__msg_start:
        .loc    107
        ld r4, [r0, __msg_sqhead] | ld r1, [r0, __msg_w]
        ld r2, [r0, __msg_h] | ld r5, [r0, __msg_x]
        ld r6, [r0, __msg_y] | ld r28, [r0, __msg_first]
        and r7, r4, 63
        shl r7, r7, 4 | iadd r4, r4, 1
        ld r10, [r7, __msg_sq] | ld r11, [r7, __msg_sq+4]
        ld r12, [r7, __msg_sq+8] | st [r0, __msg_sqhead], r4
        mv r3, 1
        st [r0, __msg_sending], r3
        ; r8, r9: the destination's x and y
        isub r8, r10, r28
        imodu r8, r8, r1
        isub r9, r10, r28
        idivu r9, r9, r1
        ; r13: the word that every routing word carries above bit 15: the source
        shl r13, cid, 16
        nop
        nop
        nop
        nop
        nop
        ; r20..r25: the routing words, r19 how many; r14 the pool the next hops take
        mv r19, 0 | mv r14, 0
        ; ---- X: r15 the distance rightward, r16 the bus, r17 the cell that sends
        ; over the wrap-around link, or -1
        isub r15, r8, r5
        ilt r3, r15, 0
        bz r3, .Lx_pos
        iadd r15, r15, r1
.Lx_pos:
        shl r3, r15, 1 | mv r17, -1
        ile r3, r3, r1
        bz r3, .Lx_left
        mv r16, 0
        ilt r3, r8, r5
        bz r3, .Lx_done
        isub r17, r1, 1
        jmp .Lx_done
.Lx_left:
        mv r16, 2
        ilt r3, r5, r8
        bz r3, .Lx_done
        mv r17, 0
.Lx_done:
        ; ---- Y: r18 the distance upward, r26 the bus, r27 the wrap cell's y or -1
        isub r18, r9, r6
        ilt r3, r18, 0
        bz r3, .Ly_pos
        iadd r18, r18, r2
.Ly_pos:
        shl r3, r18, 1 | mv r27, -1
        ile r3, r3, r2
        bz r3, .Ly_down
        mv r26, 1
        ilt r3, r9, r6
        bz r3, .Ly_done
        isub r27, r2, 1
        jmp .Ly_done
.Ly_down:
        mv r26, 3
        ilt r3, r6, r9
        bz r3, .Ly_done
        mv r27, 0
.Ly_done:
        ; the begin marker: this cell, turning onto the first bus
        bz r15, .Lfirst_y
        iadd r3, r16, 1
        jmp .Lfirst
.Lfirst_y:
        iadd r3, r26, 1
.Lfirst:
        shl r3, r3, 12
        or r20, r3, cid
        mv r19, 1
        bz r15, .Lrt_y
        ; X dateline: a turn straight on at the wrap cell, after which the open pool
        ieq r3, r17, -1
        bnz r3, .Lrt_corner
        ieq r3, r17, r5
        bnz r3, .Lrt_wrap_here
        ; word (y*W + wrapx) | (bus+1) << 12, pool 0
        imul r3, r6, r1
        nop
        iadd r3, r3, r17 | iadd r4, r16, 1
        iadd r3, r3, r28
        shl r4, r4, 12
        or r3, r3, r4
        or r3, r3, r13
        call __msg_word
.Lrt_wrap_here:
        mv r14, 1
.Lrt_corner:
        bz r18, .Lrt_dest
        ; the corner at (dx, y), in the pool the X hops took
        imul r3, r6, r1
        iadd r4, r26, 1
        shl r4, r4, 12
        iadd r3, r3, r8
        iadd r3, r3, r28
        or r3, r3, r4 | shl r4, r14, 15
        or r3, r3, r4
        or r3, r3, r13
        call __msg_word
        mv r14, 0
.Lrt_y:
        bz r18, .Lrt_dest
        ieq r3, r27, -1
        bnz r3, .Lrt_dest
        ; the Y dateline at (dx, wrapy), unless the Y hops start there
        ieq r3, r27, r6
        bnz r3, .Lrt_ywrap_here
        imul r3, r27, r1
        iadd r4, r26, 1
        shl r4, r4, 12
        iadd r3, r3, r8
        iadd r3, r3, r28
        or r3, r3, r4 | shl r4, r14, 15
        or r3, r3, r4
        or r3, r3, r13
        call __msg_word
.Lrt_ywrap_here:
        mv r14, 1
.Lrt_dest:
        shl r4, r14, 15
        or r3, r10, r4
        or r3, r3, r13
        call __msg_word
        ; the header through output gate 0 on local channel 19, then the spool
        .loc    236
        mv %go0, 19
        .loc    238
        pbegin @g0, r20
        isub r19, r19, 1
        mv @g0, r21 | isub r19, r19, 1
        bz r19, .Lhdr_done
        mv @g0, r22 | isub r19, r19, 1
        bz r19, .Lhdr_done
        mv @g0, r23 | isub r19, r19, 1
        bz r19, .Lhdr_done
        mv @g0, r24 | isub r19, r19, 1
        bz r19, .Lhdr_done
        mv @g0, r25
.Lhdr_done:
        shl r4, r12, 2
        iadd r4, r4, r11
        nop
        mv %go0, -1
        mv %sps, 7
        mv %spa, r11
        mv %spl, r4
        mv %spn, r12
        mv %spc, 51             ; 19 | out
        ret

; Appends r3 to the routing words r20..r25 (r19 of them so far).
__msg_word:
        .loc    264
        ieq r4, r19, 1
        bnz r4, .Lw1
        ieq r4, r19, 2
        bnz r4, .Lw2
        ieq r4, r19, 3
        bnz r4, .Lw3
        ieq r4, r19, 4
        bnz r4, .Lw4
        mv r25, r3 | iadd r19, r19, 1
        ret
.Lw1:   mv r21, r3 | iadd r19, r19, 1
        ret
.Lw2:   mv r22, r3 | iadd r19, r19, 1
        ret
.Lw3:   mv r23, r3 | iadd r19, r19, 1
        ret
.Lw4:   mv r24, r3 | iadd r19, r19, 1
        ret

; Waits for one event and acts on it.
__msg_poll:
        .loc    286
        evwait r1
        shr r2, r1, 8 | and r3, r1, 255
        mv r4, %evdata
        ieq r5, r2, 8
        bnz r5, .Lev_arrived
        ieq r5, r2, 6
        bnz r5, .Lev_spool
        ; kind 7: a pathway no cell could route: a fault, naming this line
        ld r1, [r0, 2]
        ret
.Lev_arrived:
        ld r5, [r0, __msg_patail]
        shr r4, r4, 16
        and r6, r5, 31
        shl r6, r6, 3 | iadd r5, r5, 1
        st [r6, __msg_pa], r3 | st [r6, __msg_pa+4], r4
        st [r0, __msg_patail], r5
        ret
.Lev_spool:
        and r5, r4, 255
        bz r5, .Lev_received
        ; the send's spool stopped: close the message and the pathway, start the next
        .loc    309
        mv %go0, 19
        .loc    311
        mend @g0, 0
        pend @g0, 0
        st [r0, __msg_sending], r0
        ld r6, [r0, __msg_sqhead] | ld r7, [r0, __msg_sqtail]
        mv %go0, -1
        ieq r8, r6, r7
        bnz r8, .Lev_ret
        jmp __msg_start
.Lev_received:
        mv %sps, 0
        ld r6, [r0, __msg_rbuf]
        mv r7, %spa
        mv r8, 1
        isub r7, r7, r6
        shr r7, r7, 2
        st [r0, __msg_rlen], r7 | st [r0, __msg_rdone], r8
.Lev_ret:
        ret

msg_recv:
        .loc    332
        st [r0, __msg_rbuf], r1 | st [r0, __msg_rmax], r2
        st [r0, __msg_rbusy], r0 | st [r0, __msg_rdone], r0
.Lrecv_loop:
        ld r1, [r0, __msg_rdone] | ld r2, [r0, __msg_rbusy]
        ld r3, [r0, __msg_pahead] | ld r4, [r0, __msg_patail]
        bnz r1, .Lrecv_done
        bnz r2, .Lrecv_wait
        ieq r5, r3, r4
        bnz r5, .Lrecv_wait
        ; bind spool gate 0 to the first pathway that arrived
        and r6, r3, 31
        shl r6, r6, 3 | iadd r3, r3, 1
        ld r7, [r6, __msg_pa] | ld r8, [r6, __msg_pa+4]
        ld r9, [r0, __msg_rbuf] | ld r10, [r0, __msg_rmax]
        st [r0, __msg_pahead], r3
        st [r0, __msg_rsrc], r8
        shl r10, r10, 2 | or r7, r7, 64
        iadd r10, r10, r9 | mv r11, 1
        mv %sps, 0
        mv %spa, r9
        mv %spl, r10
        mv %spn, 0
        mv %spc, r7
        st [r0, __msg_rbusy], r11
        jmp .Lrecv_loop
.Lrecv_wait:
        .loc    359
        call __msg_poll
        jmp .Lrecv_loop
.Lrecv_done:
        ld r1, [r0, __msg_rsrc] | ld r2, [r0, __msg_rlen]
        nop
        ret

msg_flush:
        .loc    368
        ld r1, [r0, __msg_sending]
        nop
        bz r1, .Lflush_done
        .loc    372
        call __msg_poll
        jmp msg_flush
.Lflush_done:
        ret
