"""Grading on a Slurm cluster: the Slurm options, the submission and its rounds, the array tasks (shards) and their merge, the claims, --status."""
