"""`invoke label`: a local review page where a person labels a run's answers right or wrong."""
