describe node ip-172-20-120-45.eu-west-2.compute.internal
