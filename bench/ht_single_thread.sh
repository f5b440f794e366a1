#!/usr/bin/env bash
# Single-thread HT lossless encode/decode, mallat against OpenJPH, medians of 7.
M=$1; IN=$2; W=$(mktemp -d)
# OpenJPH carried in .gpu/ojph (Debian's, with its libraries; its libtiff may come with the carried Grok's).
export PATH=$PWD/.gpu/ojph/usr/bin:$PATH LD_LIBRARY_PATH=$PWD/.gpu/ojph/lib:$PWD/.gpu/grok/lib:${LD_LIBRARY_PATH:-}
. bench/timing.sh
for i in 1 2 3 4 5 6 7; do t $M encode -i $IN -o $W/m.jhc --ht -threads 1; done | med | sed 's/^/mallat enc 1t /'
for i in 1 2 3 4 5 6 7; do t $M decode -i $W/m.jhc -o $W/m.ppm -threads 1; done | med | sed 's/^/mallat dec 1t /'
for i in 1 2 3 4 5 6 7; do t $M encode -i $IN -o $W/m.jhc --ht; done | med | sed 's/^/mallat enc 16t /'
for i in 1 2 3 4 5 6 7; do t $M decode -i $W/m.jhc -o $W/m.ppm; done | med | sed 's/^/mallat dec 16t /'
for i in 1 2 3 4 5 6 7; do t ojph_compress -i $IN -o $W/o.j2c -reversible true; done | med | sed 's/^/ojph enc /'
for i in 1 2 3 4 5 6 7; do t ojph_expand -i $W/o.j2c -o $W/o.ppm; done | med | sed 's/^/ojph dec /'
cmp $W/m.ppm $IN && echo "mallat round trip exact"
# A command that failed would time as a few milliseconds: say so rather than leave a figure.
cmp -s $W/o.ppm $IN && echo "OpenJPH round trip exact" || echo "OpenJPH FAILED: its times above are not valid"
perf stat -e page-faults $M decode -i $W/m.jhc -o $W/m.ppm -threads 1 2>&1 | grep -E "faults|elapsed|sys"
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag
rm -rf $W
