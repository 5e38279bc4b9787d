describe node gke-infer-default-pool-2a9c4e71-k3zt
