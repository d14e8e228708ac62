"""Rows whose full names differ print differently once shortened.

names_check.py TABLE_OUT CSV_OUT: TABLE_OUT is a table-format run at a
terminal width (its Name column cut), CSV_OUT the csv of the same run
(the full names, the same rows in the same order).  Exit 1 naming the
first two rows that print the same text for different names."""
import csv
import sys

lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
header = lines[0]
col = header.rindex("Name")
shown = []
for line in lines[2:]:
    if not line or line.startswith("note:"):
        break
    shown.append(line[col:].rstrip())
rows = list(csv.reader(open(sys.argv[2], encoding="utf-8")))
name = rows[0].index("Name")
full = [r[name] for r in rows[1:]]
if len(full) != len(shown):
    sys.exit("%d rows in the table, %d in the csv" % (len(shown), len(full)))
seen = {}
for s, f in zip(shown, full):
    if s in seen and seen[s] != f:
        sys.exit("'%s' stands for two names:\n  %s\n  %s" % (s, seen[s], f))
    seen[s] = f
print("%d rows, %d distinct names, %d cut" % (len(full), len(set(full)), sum(s != f for s, f in zip(shown, full))))
