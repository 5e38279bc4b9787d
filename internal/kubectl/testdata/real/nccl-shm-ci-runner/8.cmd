describe pod mt-l-x86iavx512-45-172-t4-4-csmpw-runner-g4sfw-workflow -n arc-runners
