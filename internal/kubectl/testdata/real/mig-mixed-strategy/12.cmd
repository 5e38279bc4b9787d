describe node gke-ml-default-pool-77e1c0ab-5tgh
