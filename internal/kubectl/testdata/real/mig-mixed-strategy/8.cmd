describe pod eval-harness-6d8b7c5f9-r4m2s -n notebooks
