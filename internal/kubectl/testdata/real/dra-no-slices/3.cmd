get events -n research
