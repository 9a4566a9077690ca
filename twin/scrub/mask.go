package scrub

// Mask returns v with every card number (found as Scrubber.Value finds
// them, by the Luhn check) written as zeros in its own layout, and every
// known credential shape replaced by marker. It needs no key: it is for
// views of data a twin keeps as it was sent, such as the HAR export of an
// agent's requests, where a token that joins up with other records is not
// needed and a keyed token of a card number (a few billion candidates)
// would be worth guessing. An all-zero number passes the Luhn check and
// starts with 0000, which no issuer uses, so Mask(Mask(v)) == Mask(v).
func Mask(v, marker string) string {
	v = replaceCards(v, zeroCard, nil)
	return replaceKnown(v, func(*KnownCredential, string) string { return marker }, nil)
}

func zeroCard(card string) string {
	b := []byte(card)
	for i, c := range b {
		if isDigit(c) {
			b[i] = '0'
		}
	}
	return string(b)
}
