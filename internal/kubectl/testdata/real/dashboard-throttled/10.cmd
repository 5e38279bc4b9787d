describe deployment homepage -n homepage
