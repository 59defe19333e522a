/* attention_decode: placeholder */
