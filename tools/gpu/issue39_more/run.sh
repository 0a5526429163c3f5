cd .dev39
export PYTHONUNBUFFERED=1
nvidia-smi -L
timeout 300 python3 run_corpus.py $OUT > $OUT/corpus.txt 2>&1; echo corpus rc $?
grep -v '"ok"' $OUT/h100_new.json | cut -c1-600
tail -3 $OUT/corpus.txt
timeout 120 python3 -c "import numpy as np; np.row_stack = getattr(np, 'row_stack', np.vstack); import runpy; runpy.run_path('probe7.py', run_name='x')" > $OUT/probe7.txt 2>&1; echo probe7 rc $?
timeout 120 python3 -c "import numpy as np; np.row_stack = getattr(np, 'row_stack', np.vstack); import runpy; runpy.run_path('probe9.py', run_name='x')" > $OUT/probe9.txt 2>&1; echo probe9 rc $?
tail -12 $OUT/probe9.txt
