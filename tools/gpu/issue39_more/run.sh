cd .dev39
export PYTHONUNBUFFERED=1
nvidia-smi -L
timeout 240 python3 run_corpus.py $OUT > $OUT/corpus.txt 2>&1; echo corpus rc $?
grep -v '"ok"' $OUT/h100_new.json
tail -4 $OUT/corpus.txt
timeout 60 python3 alloc.py > $OUT/alloc.txt 2>&1; echo alloc rc $?
timeout 150 compute-sanitizer --tool memcheck python3 c75run.py > $OUT/c75_memcheck.txt 2>&1; echo memcheck rc $?
tail -3 $OUT/c75_memcheck.txt
timeout 150 compute-sanitizer --tool racecheck --racecheck-report all python3 atomics_race.py > $OUT/racecheck.txt 2>&1; echo racecheck rc $?
grep -E "kernel|RACECHECK SUMMARY|hazard|Race reported|^\[" $OUT/racecheck.txt | head -40
