# v6 as the reference solution has it
