describe replicaset eval-harness-6d8b7c5f9 -n notebooks
