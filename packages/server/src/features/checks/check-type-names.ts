/** A check type with its article, as a sentence says it: `an API`, `an ICMP`, `an SSL`, `a URL`, `a TCP`. */
export function aCheckType(checkType: string): string {
  return `${/^([AEIO]|SSL)/.test(checkType) ? 'an' : 'a'} ${checkType}`
}
