get resourceclaims -n research
