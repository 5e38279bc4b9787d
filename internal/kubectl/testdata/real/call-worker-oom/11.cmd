describe node ip-10-20-14-201.us-west-2.compute.internal
