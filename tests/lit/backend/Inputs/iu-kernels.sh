#!/bin/sh
# Runs each kernel of the suite (bench/kernels) on Warp at -O2 with the IU's loop
# control and with everything on the cells (-fno-iu); the outputs must be equal.
# usage: iu-kernels.sh KERNEL_DIR TMP_PREFIX
set -e
dir=$1 tmp=$2
for spec in "polynomial:data coeffs:results" "fir:x w:y" "dot:a b:result" "matmul:a b:c" "conv3:pix w:res" \
            "fft:ure uim vre vim wr wi:yure yuim yvre yvim"; do
    k=${spec%%:*} rest=${spec#*:}
    ins=${rest%%:*} outs=${rest#*:}
    for mode in iu cells; do
        flag=; [ $mode = cells ] && flag=-fno-iu
        warp-cc -mcpu=warp -O2 $flag -o "$tmp.$k.$mode.img" "$dir/$k.w2"
        args=
        for a in $ins; do args="$args --in $a=$dir/$k.$a"; done
        for a in $outs; do args="$args --out $a=$tmp.$k.$mode.$a"; done
        warp-sim "$tmp.$k.$mode.img" $args >/dev/null
    done
    for a in $outs; do cmp "$tmp.$k.iu.$a" "$tmp.$k.cells.$a"; done
    echo "$k: same results"
done
