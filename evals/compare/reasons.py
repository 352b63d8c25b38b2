"""Why the gate said what it said, as a short code for machines.

CI reads the exit code (0 PASS, 1 FAIL, 3 INCONCLUSIVE); the code tells the three kinds of
INCONCLUSIVE apart (undecided rows or errors decide it, the suite is too small to tell, the
noninferiority interval straddles the margin). `invoke diff --format json` carries it as
`verdict.reason`, and the verdict line prints it in brackets.
"""

from __future__ import annotations

#: Every verdict's reason, for machines (`--format json`: verdict.reason) and the verdict line.
REASONS = {
    "worse": "FAIL: a figure is worse at its level (significant)",
    "beyond-margin": "FAIL: an interval's upper end is below -margin (noninferior)",
    "case-went-down": "FAIL: a case that is not known to be flaky went down (strict)",
    "no-evidence": "PASS: no figure is worse at its level (significant)",
    "within-margin": "PASS: every interval's lower end is above -margin (noninferior)",
    "none-went-down": "PASS: no case went down (strict)",
    "gate-off": "PASS: --fail-on never",
    "undecided-rows": "INCONCLUSIVE: review rows or cases missing from B decide the verdict",
    "error-rate": "INCONCLUSIVE: B's errored cases exceed A's, so its errors could hide breaks",
    "too-small": "INCONCLUSIVE: no result at this n could be significant (cases, clusters, epochs)",
    "margin-undecided": "INCONCLUSIVE: the interval straddles -margin (noninferior)",
    "nothing-compared": "INCONCLUSIVE: no case was scored in both runs",
}
