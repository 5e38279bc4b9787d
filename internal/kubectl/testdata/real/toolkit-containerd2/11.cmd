describe node gke-prod-default-pool-3c8d1e22-m9px
