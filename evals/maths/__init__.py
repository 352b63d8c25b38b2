"""Pure arithmetic more than one layer needs: distribution functions and exact intervals."""
