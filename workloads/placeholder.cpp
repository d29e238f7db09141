// Keeps the library non-empty until the model sources land; removed then.
