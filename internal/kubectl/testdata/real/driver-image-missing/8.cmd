describe pod ranker-7c5d9f8b6-t2wqx -n inference
