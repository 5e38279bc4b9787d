describe replicaset call-worker-8d7f6c5b4 -n voice
