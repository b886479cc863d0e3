#!/bin/sh
# All benchmarks, one after the other (about half an hour on 2 cores). Each
# writes bench/results/NAME.md with the machine, the commit and the commands.
set -e
d=$(dirname "$0")
for b in import modes a9a adarevision peers; do
	echo "== bench/$b.sh"
	sh "$d/$b.sh"
done
