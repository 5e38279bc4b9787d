describe replicaset ranker-7c5d9f8b6 -n inference
