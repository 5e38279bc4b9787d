describe node gke-train-default-pool-3f9a1c2e-h7kd
