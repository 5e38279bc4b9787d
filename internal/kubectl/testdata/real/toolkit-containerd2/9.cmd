describe replicaset summarizer-5b7c9d4f8 -n assist
