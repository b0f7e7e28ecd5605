for f in easy_1000_3 easy_1000_10 noise_1000_3 hard_1000_3 hard_1000_10 easy_10000_10 noise_10000_10 hard_10000_10 easy_100000_10 noise_100000_10 hard_100000_10; do
  s=$(date +%s.%N)
  ${DISCO:-./disco} engine discover --dataset $f.csv --mode symbolic --target y --time-limit 600s --output $f.json 2>$f.err
  e=$(date +%s.%N)
  echo "$f $(echo "$e - $s" | bc) $(python3 -c "import json;d=json.load(open('$f.json'));print(d['summary'].get('searches'), d['claims'][0].get('expression') if d['claims'] else None)" 2>/dev/null)"
done
echo done
