"""Many runs at once: candidates against one baseline with Holm-adjusted paired tests, the
case-by-run grid, the prompts x models matrix, and the committed baselines over git history."""
