; Message passing on the iWarp torus (seed 003, section 4.3), run by the cells
; themselves: every clock of overhead is an instruction below, none a constant.
; docs/design.md, section 11, gives the protocol and why it cannot deadlock; in short:
;
; - A message is a pathway in the reservation pool: its begin marker names the
;   sender itself with a turn toward the first bus, so the sender's agent, not a
;   blocking creq, waits for the first channel (the computation agent never stops
;   in a channel request and keeps serving its events); then the corner's routing
;   word and the destination's (bits 16..31: the source), then the number of words.
;   Dimension order on the mesh: no route takes a wrap-around link, so the routes
;   close no cycle with one class of channels (seed 003's "surface router"; the
;   other pool is the acknowledgements').
; - The words go out by an out spool (gate 7) from the sender's own memory: sends
;   are buffered at the sender and run in the background from a queue, two at a
;   time (local channels 19 and 17, spool gates 7 and 6), never two to one cell.
; - The receiver reads the number through input gate 0 and spools the words into
;   the buffer of the receive it posted (gate 0, by count); pathways that arrive
;   meanwhile wait at their last channel, listed in arrival order. Having bound the
;   spool it sends the source an acknowledgement: a pathway with no words in the
;   open pool (mesh routes too), through local channel 18.
; - The sender writes the pathway end marker once its spool has stopped and the
;   acknowledgement has come: the words drain then, so the marker never waits for
;   room while the cell should be serving its events.
;
; Calls: arguments in r1, r2, r3; results in r1, r2; r1..r31 are clobbered, r32..r63
; kept. Local channels 17 to 19, spool gates 0, 6 and 7, input and output gate 0.
;   msg_init   r1 = torus width, r2 = height, r3 = the first cell's cid (cell
;              (x, y) is cid first + y*W + x)
;   msg_send   r1 = destination cid, r2 = byte address, r3 = words (queued, 256
;              at most: a send to a full queue serves events until one leaves;
;              the words must stay as they are until msg_flush returns)
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
; Two sends may be under way, in slots 0 and 1 (local channel 19 or 17, spool gate
; 7 or 6): bit 0 of __msg_st the slot is busy, bit 1 its spool stopped, bit 2 its
; destination (__msg_dst) acknowledged.
__msg_st:       .word 0, 0
__msg_dst:      .word 0, 0
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
; The send queue: 256 entries of (destination, address, words, 0).
__msg_sq:       .zero 4096
; Pathways arrived and not yet received: 32 entries of (channel, source).
__msg_pa:       .zero 256
        .text
        .globl  msg_init
        .globl  msg_send
        .globl  msg_recv
        .globl  msg_flush

msg_init:
        .loc    68
        st [r0, __msg_w], r1 | st [r0, __msg_h], r2
        st [r0, __msg_first], r3 | isub r5, cid, r3
        imodu r3, r5, r1
        idivu r4, r5, r1
        st [r0, __msg_st], r0 | st [r0, __msg_st+4], r0
        st [r0, __msg_sqhead], r0
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
        .loc    89
        mv r29, r1 | mv r30, r2
        mv r31, r3
.Lsend_again:
        ld r4, [r0, __msg_sqtail] | ld r5, [r0, __msg_sqhead]
        nop
        isub r6, r4, r5
        ieq r6, r6, 256
        bz r6, .Lsq_room
        .loc    98
        call __msg_poll
        jmp .Lsend_again
.Lsq_room:
        and r7, r4, 255
        shl r7, r7, 4
        iadd r4, r4, 1
        st [r7, __msg_sq], r29 | st [r7, __msg_sq+4], r30
        st [r7, __msg_sq+8], r31 | st [r0, __msg_sqtail], r4
        jmp __msg_try

; Starts queued sends while a slot is free, in order; one waits while the other
; slot sends to the same cell, so that two messages between two cells keep their
; order.
__msg_try:
        .loc    113
        ld r4, [r0, __msg_sqhead] | ld r5, [r0, __msg_sqtail]
        ld r6, [r0, __msg_st] | ld r7, [r0, __msg_st+4]
        ld r8, [r0, __msg_dst] | ld r9, [r0, __msg_dst+4]
        ieq r10, r4, r5 | and r11, r4, 255
        bnz r10, .Ltry_ret
        shl r11, r11, 4
        ld r12, [r11, __msg_sq]
        mv r24, 0
        bz r6, .Ltry_slot
        mv r24, 1
        bnz r7, .Ltry_ret
        ; slot 1, while slot 0 sends to r8
        ieq r13, r12, r8
        bnz r13, .Ltry_ret
        jmp .Ltry_go
.Ltry_slot:
        ; slot 0: slot 1 may send to r9
        ieq r13, r12, r9
        and r13, r13, r7
        bnz r13, .Ltry_ret
.Ltry_go:
        call __msg_start
        jmp __msg_try
.Ltry_ret:
        ret

; Starts the send at the head of the queue in slot r24 (the caller knows both are
; there to be had).
__msg_start:
        .loc    143
        ld r4, [r0, __msg_sqhead] | ld r1, [r0, __msg_w]
        ld r2, [r0, __msg_h] | ld r5, [r0, __msg_x]
        ld r6, [r0, __msg_y] | ld r28, [r0, __msg_first]
        and r7, r4, 255
        shl r7, r7, 4 | iadd r4, r4, 1
        ld r10, [r7, __msg_sq] | ld r11, [r7, __msg_sq+4]
        ld r12, [r7, __msg_sq+8] | st [r0, __msg_sqhead], r4
        mv r3, 1 | shl r25, r24, 2
        st [r25, __msg_st], r3 | st [r25, __msg_dst], r10
        ; r23: the slot's channel, 19 or 17
        shl r23, r24, 1
        isub r23, r23, 19
        ineg r23, r23
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
        nop
        ; r20..r22: the routing words, r19 how many. Dimension order on the mesh
        ; (no wrap-around link), all in the reservation pool
        mv r19, 1
        ; the begin marker: this cell, turning onto the first bus: XRight (action
        ; 1) or XLeft (3) if the x differ, else YUp (2) or YDown (4)
        ieq r15, r8, r5 | ilt r3, r5, r8
        ieq r18, r9, r6 | ilt r4, r6, r9
        mv r16, 1
        bnz r3, .Lx_bus
        mv r16, 3
.Lx_bus:
        mv r26, 2
        bnz r4, .Ly_bus
        mv r26, 4
.Ly_bus:
        mv r3, r16
        bz r15, .Lfirst
        mv r3, r26
.Lfirst:
        shl r3, r3, 12
        or r20, r3, cid
        ; the corner at (dx, y), if it moves in both
        bnz r15, .Lrt_dest
        bnz r18, .Lrt_dest
        imul r3, r6, r1
        shl r4, r26, 12
        iadd r3, r3, r8
        iadd r3, r3, r28
        or r3, r3, r4
        or r3, r3, r13
        call __msg_word
.Lrt_dest:
        or r3, r10, r13 | shl r27, r24, 30
        or r3, r3, r27
        call __msg_word
        ; the header through output gate 0 on local channel 19, then the spool
        .loc    206
        mv %go0, r23
        .loc    208
        pbegin @g0, r20
        ieq r3, r19, 2
        mv @g0, r21
        bnz r3, .Lhdr_done
        mv @g0, r22
.Lhdr_done:
        ; the number of words, which the receiver reads first
        mv @g0, r12 | shl r4, r12, 2
        iadd r4, r4, r11
        nop
        xor r3, r24, 7 | or r5, r23, 32
        mv %go0, -1
        mv %sps, r3
        mv %spa, r11
        mv %spl, r4
        mv %spn, r12
        mv %spc, r5             ; the channel | out
        ret

; Appends r3 to the routing words r20..r22 (r19 of them so far).
__msg_word:
        .loc    230
        ieq r4, r19, 1
        bnz r4, .Lw1
        mv r22, r3 | iadd r19, r19, 1
        ret
.Lw1:   mv r21, r3 | iadd r19, r19, 1
        ret

; Waits for one event and acts on it.
__msg_poll:
        .loc    240
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
        shr r4, r4, 16
        and r5, r4, 0x8000
        bnz r5, .Lev_ack
        ld r5, [r0, __msg_patail]
        nop
        and r6, r5, 31
        shl r6, r6, 3 | iadd r5, r5, 1
        st [r6, __msg_pa], r3 | st [r6, __msg_pa+4], r4
        st [r0, __msg_patail], r5
        ret
.Lev_ack:
        ; the destination of the send in slot (bit 0) has bound a spool to it
        and r9, r4, 1
        mv r6, 4
        jmp .Lsend_state
.Lev_spool:
        and r5, r4, 255
        bz r5, .Lev_received
        xor r9, r5, 7
        mv r6, 2
.Lsend_state:
        shl r10, r9, 2
        ld r7, [r10, __msg_st]
        nop
        or r7, r7, r6
        st [r10, __msg_st], r7
        ieq r8, r7, 7
        bz r8, .Lev_ret
        ; its words have all gone into the channel and the destination drains them:
        ; the end marker has room, and closes the pathway; queued sends start
        shl r11, r9, 1
        isub r11, r0, r11
        iadd r11, r11, 19
        .loc    285
        mv %go0, r11
        .loc    287
        pend @g0, 0
        st [r10, __msg_st], r0
        nop
        mv %go0, -1
        jmp __msg_try
.Lev_received:
        mv r8, 1
        st [r0, __msg_rdone], r8
.Lev_ret:
        ret

msg_recv:
        .loc    300
        st [r0, __msg_rbuf], r1 | st [r0, __msg_rmax], r2
        st [r0, __msg_rbusy], r0 | st [r0, __msg_rdone], r0
.Lrecv_loop:
        ld r1, [r0, __msg_rdone] | ld r2, [r0, __msg_rbusy]
        ld r3, [r0, __msg_pahead] | ld r4, [r0, __msg_patail]
        bnz r1, .Lrecv_done
        bnz r2, .Lrecv_wait
        ieq r5, r3, r4
        bnz r5, .Lrecv_wait
        ; the first pathway that arrived: its length through input gate 0, then spool
        ; gate 0 takes the words, and the source gets its acknowledgement
        and r6, r3, 31
        shl r6, r6, 3 | iadd r3, r3, 1
        ld r7, [r6, __msg_pa] | ld r8, [r6, __msg_pa+4]
        ld r9, [r0, __msg_rbuf] | ld r10, [r0, __msg_rmax]
        st [r0, __msg_pahead], r3 | shr r21, r8, 14
        and r8, r8, 0x3fff
        st [r0, __msg_rsrc], r8 | and r21, r21, 1
        .loc    319
        mv %gi0, r7
        mv r11, @g0
        mv %gi0, -1 | mv r12, 1
        st [r0, __msg_rlen], r11 | st [r0, __msg_rbusy], r12
        ileu r13, r11, r10
        .loc    325
        bz r13, __msg_too_long
        bz r11, .Lrecv_empty
        shl r10, r10, 2
        iadd r10, r10, r9
        mv %sps, 0
        mv %spa, r9
        mv %spl, r10
        mv %spn, r11
        mv %spc, r7
        jmp .Lrecv_ack
.Lrecv_empty:
        st [r0, __msg_rdone], r12
.Lrecv_ack:
        mv r1, r8
        call __msg_ack
        jmp .Lrecv_loop
.Lrecv_wait:
        .loc    343
        call __msg_poll
        jmp .Lrecv_loop
.Lrecv_done:
        ld r1, [r0, __msg_rsrc] | ld r2, [r0, __msg_rlen]
        nop
        ret

; A message longer than the receive's buffer: a fault, naming this line.
__msg_too_long:
        .loc    353
        ld r1, [r0, 2]
        ret

; The acknowledgement token to cell r1, through local channel 18 (19 may be
; spooling a message): a pathway without words in the open pool, which messages do
; not use, dimension order on the mesh like them (tokens can fill a channel's queue
; when many are under way, so their routes too must not close a cycle). Its word
; carries bit 15 in bits 16..31.
__msg_ack:
        .loc    363
        ld r2, [r0, __msg_first] | ld r3, [r0, __msg_w]
        ld r4, [r0, __msg_h] | ld r5, [r0, __msg_x]
        ld r6, [r0, __msg_y]
        isub r7, r1, r2
        imodu r8, r7, r3
        idivu r9, r7, r3
        mv r20, 0x80000000 | shl r21, r21, 16
        or r20, r20, r1
        or r20, r20, 0x8000
        or r20, r20, r21
        nop
        nop
        nop
        ; r10, r12: whether it moves in x, in y; r11, r13: the turn actions (bus + 1),
        ; on the mesh: XRight (1) or XLeft (3), YUp (2) or YDown (4)
        ine r10, r8, r5 | ilt r14, r5, r8
        ine r12, r9, r6 | ilt r15, r6, r9
        mv r11, 1 | mv r13, 2
        bnz r14, .Lack_x
        mv r11, 3
.Lack_x:
        bnz r15, .Lack_y
        mv r13, 4
.Lack_y:
        ; r11, r13: the turn actions (bus + 1); r15, r16: the words before the last
        bz r10, .Lack_only_y
        shl r15, r11, 12
        or r15, r15, cid
        or r15, r15, 0x8000
        bz r12, .Lack_two
        ; the corner at (its x, this cell's y)
        imul r16, r6, r3
        shl r17, r13, 12
        iadd r16, r16, r8
        iadd r16, r16, r2
        or r16, r16, r17
        or r16, r16, 0x8000
        .loc    401
        mv %go0, 18
        pbegin @g0, r15
        nop
        mv @g0, r16
        mv @g0, r20
        jmp .Lack_end
.Lack_only_y:
        shl r15, r13, 12
        or r15, r15, cid
        or r15, r15, 0x8000
.Lack_two:
        .loc    413
        mv %go0, 18
        pbegin @g0, r15
        nop
        mv @g0, r20
.Lack_end:
        pend @g0, 0
        nop
        nop
        mv %go0, -1
        ret

msg_flush:
        .loc    426
        ld r1, [r0, __msg_st] | ld r2, [r0, __msg_st+4]
        nop
        or r1, r1, r2
        bz r1, .Lflush_done
        .loc    431
        call __msg_poll
        jmp msg_flush
.Lflush_done:
        ret
