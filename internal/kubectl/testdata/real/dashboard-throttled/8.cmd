describe pod homepage-6c8f9d7b5-tx4vn -n homepage
