#!/usr/bin/env bats
# Every command the handout of each lab in the first half of the labs names, run in the student's
# copy (make dist-student's tarball unpacked under a path with a space, as student.bats has it):
# each works, or says plainly why it stops (handout-commands.bash).
load helpers
load handout-commands

setup_file() {
    student_copy
}

@test "every command each lab's handout names works in the student's copy: the first half of the labs" {
    handout_half 1
}
