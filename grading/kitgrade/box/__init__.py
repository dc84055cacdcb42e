"""The sandbox: one untrusted command in a box under limits (bubblewrap's view, cgroups, user ids, the watch of a run); nothing above it knows how a box is built."""
