"""The sandbox: one untrusted command in a box under limits.

sandbox is the interface (Sandbox, Box, Limits, Result); the rest is how a box is built:
bubblewrap's view, cgroups, user ids, the watch of a run. Nothing above knows that.
"""
